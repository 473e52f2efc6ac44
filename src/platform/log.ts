/**
 * The one structured logger. Capabilities take a child with `capability`; requests add
 * `request_id`. Secrets never reach it: the redaction paths below are a last line of defence.
 */
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      base: { service: 'posthorn' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: [
          'authorization',
          'headers.authorization',
          'req.headers.authorization',
          'api_key',
          'secret',
          'password',
        ],
        censor: '[redacted]',
      },
    },
    destination ?? process.stdout,
  );
}
