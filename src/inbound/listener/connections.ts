/**
 * The parts of smtp-server's connection objects the listener reaches into, because its API offers
 * neither: a reply sent outside a command (the 421 of the session limit and of a stop's end, after
 * the reply to a commit in progress), and a reply whose enhanced status code (RFC 3463) is not the
 * one smtp-server's table gives its reply code.
 *
 * It must never change what smtp-server sends other than that code.
 */
import type { SMTPServer } from 'smtp-server';
import { settlesWithin } from '../../platform/settles-within.js';

/** A reply text that starts with an enhanced status code (`4.3.1 ...`) of the reply's class. */
const OWN_ENHANCED_CODE = /^([245])\.\d{1,3}\.\d{1,3} /;

/** smtp-server's connection objects, as much of them as is used here. */
interface LiveConnection {
  readonly id: string;
  /** `context` picks the enhanced status code; `false` sends none. */
  send(code: number, message: string | string[], context?: string | false): void;
}

export interface Connections {
  /**
   * Lets the connection of this session keep the enhanced status code a refusal's text starts
   * with (`smtpError(452, ..., '4.3.1')`) instead of adding smtp-server's for the reply code.
   */
  keepOwnEnhancedCodes(sessionId: string): void;
  /**
   * Answers 421 with `message` outside any command and closes the connection (RFC 5321 §3.8).
   * The reply to a commit in progress (`pending`) goes first, if it comes within `graceMs`: a 421
   * in its place makes the client send again a message that was kept. Resolves with whether the
   * pending reply came in time.
   */
  cutOff(sessionId: string, message: string, pending?: Promise<void>, graceMs?: number): Promise<boolean>;
  /** The session IDs of the connections open now. */
  ids(): string[];
}

export function connectionsOf(server: SMTPServer): Connections {
  const live = (server as unknown as { connections: Set<LiveConnection> }).connections;
  const find = (sessionId: string): LiveConnection | undefined => {
    for (const connection of live) if (connection.id === sessionId) return connection;
    return undefined;
  };
  return {
    keepOwnEnhancedCodes(sessionId) {
      const connection = find(sessionId);
      if (!connection) return;
      const send = connection.send.bind(connection);
      connection.send = (code, message, context) => {
        const own = typeof message === 'string' && context === undefined && OWN_ENHANCED_CODE.exec(message);
        send(code, message, own && own[1] === String(code)[0] ? false : context);
      };
    },
    async cutOff(sessionId, message, pending, graceMs = 0) {
      const inTime = pending === undefined || (await settlesWithin(pending, graceMs));
      find(sessionId)?.send(421, message);
      return inTime;
    },
    ids: () => [...live].map((connection) => connection.id),
  };
}
