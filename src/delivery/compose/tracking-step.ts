/**
 * The tracking step's place in composition. Opens and clicks are tracked by rewriting the HTML
 * body before it is signed: the step itself is the tracking capability's (`trackedHtml`,
 * src/tracking/render-input.ts) and runs in the render worker (render-task.ts); delivery only asks
 * tracking, through this port, for the step's input for each message it renders: the message's
 * tracking decision, the tracking host and the token key, and its List-Unsubscribe URLs. Null
 * means nothing of the message is tracked and the worker never loads the step.
 */
import type { RenderTracking } from '../../tracking/render-input.js';
import type { MessageRow } from '../queue/store-rows.js';

export interface TrackingPort {
  renderInput(message: {
    readonly id: string;
    readonly project_id: string;
    readonly track_opens: number | null;
    readonly track_clicks: number | null;
    readonly headers: Readonly<Record<string, string>>;
  }): Promise<RenderTracking | null>;
}

/** The step's input for `message`, whose extra headers are `headers` (as composed). */
export function trackingInput(
  port: TrackingPort | undefined,
  message: MessageRow,
  headers: Readonly<Record<string, string>>,
): Promise<RenderTracking | null> {
  if (port === undefined) return Promise.resolve(null);
  return port.renderInput({
    id: message.id,
    project_id: message.project_id,
    track_opens: message.track_opens,
    track_clicks: message.track_clicks,
    headers,
  });
}
