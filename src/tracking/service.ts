/**
 * Open and click tracking, composed: the settings (settings.ts), the tokens tracked mail carries
 * (token.ts, signed with a key derived from the master key), the hits they bring back (handed to
 * the recorder, recorder.ts) and the decision composition takes for each message (rewrite.ts is
 * the step that applies it in the render worker).
 */
import type { PendingHit } from './hit-events.js';
import type { HitRecorder } from './recorder.js';
import type { RenderTracking } from './render-input.js';
import { unsubscribeUrls } from './render-input.js';
import type { TrackingDecision } from './rewrite.js';
import type { TrackingSettings } from './settings.js';
import type { TrackingStore } from './store.js';
import { readToken } from './token.js';

export interface HitClient {
  readonly method: string;
  readonly userAgent: string | undefined;
  readonly ip: string | null;
}

export interface TrackingServiceDeps {
  readonly settings: TrackingSettings;
  readonly store: TrackingStore;
  readonly recorder: HitRecorder;
  readonly tokenKey: Buffer;
}

export function createTrackingService(deps: TrackingServiceDeps) {
  const { settings, store, recorder, tokenKey } = deps;
  const record = (hit: PendingHit) => recorder.record(hit);
  const decision = async (
    projectId: string,
    trackOpens: boolean | null,
    trackClicks: boolean | null,
  ): Promise<TrackingDecision | null> => {
    const decided = await settings.decide(projectId, trackOpens, trackClicks);
    if (!decided.opens && !decided.clicks) return null;
    return { ...decided, key: tokenKey };
  };
  return {
    settings,
    recorder,

    /**
     * An open of the pixel `token`: false when the token is not one of ours (nothing is recorded),
     * else recorded (a promise to wait for only while the server stops).
     */
    open(token: string, client: HitClient): false | Promise<void> | undefined {
      const read = readToken(tokenKey, token, 'open');
      if (read === undefined) return false;
      return record({ kind: 'open', messageId: read.messageId, at: Date.now(), ...client });
    },

    /** A click of the link `token`: false when it is not one of ours, else where to send the client. */
    click(token: string, client: HitClient): false | { url: string; pending: Promise<void> | undefined } {
      const read = readToken(tokenKey, token, 'click');
      if (read === undefined || read.kind !== 'click') return false;
      const pending = record({
        kind: 'click',
        messageId: read.messageId,
        index: read.index,
        count: read.count,
        url: read.url,
        at: Date.now(),
        ...client,
      });
      return { url: read.url, pending };
    },

    /** The tracking step's input for one message (null: nothing of it is tracked). */
    decision,

    /**
     * The tracking step's input for a stored message at composition (null: nothing of it is
     * tracked): its own overrides (1/0, null for the project's), and its extra headers as stored.
     */
    async renderInput(message: {
      readonly id: string;
      readonly project_id: string;
      readonly track_opens: number | null;
      readonly track_clicks: number | null;
      readonly headers: Readonly<Record<string, string>>;
    }): Promise<RenderTracking | null> {
      const flag = (value: number | null) => (value === null ? null : value === 1);
      const decided = await decision(
        message.project_id,
        flag(message.track_opens),
        flag(message.track_clicks),
      );
      if (decided === null) return null;
      return { messageId: message.id, decision: decided, unsubscribeUrls: unsubscribeUrls(message.headers) };
    },

    /** Deletes one batch of hits past their project's retention; returns how many went. */
    purgeExpired(now = Date.now()): Promise<number> {
      return store.purgeExpired(now, settings.defaultRetentionDays);
    },
  };
}

export type TrackingService = ReturnType<typeof createTrackingService>;
