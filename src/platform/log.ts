/**
 * The one structured logger. Capabilities take a child with `capability`; requests add
 * `request_id`. Secrets never reach it: the redaction paths below are a last line of defence.
 *
 * `log.format` chooses what `posthorn serve` writes: `json` (one object per line, for the journal
 * and log shippers), `pretty` (one readable line per record: time, level, message, fields), or
 * `auto`, pretty on a terminal and JSON otherwise (under systemd standard output is the journal).
 * Both are written synchronously, so nothing is lost when the process exits.
 */
import { pino, type Logger } from 'pino';
import pinoPretty from 'pino-pretty';

export type { Logger };

export type LogFormat = 'auto' | 'json' | 'pretty';

/** Whether `format` writes readable lines to `destination`. */
export function prettyLogs(format: LogFormat, destination: NodeJS.WritableStream): boolean {
  if (format === 'auto') return (destination as NodeJS.WriteStream).isTTY === true;
  return format === 'pretty';
}

function prettyStream(destination: NodeJS.WritableStream) {
  return pinoPretty({
    destination,
    sync: true,
    colorize: (destination as NodeJS.WriteStream).isTTY === true,
    singleLine: true,
    translateTime: 'SYS:yyyy-mm-dd HH:MM:ss.l',
    ignore: 'pid,hostname,service',
  });
}

export function createLogger(
  level: string,
  destination: NodeJS.WritableStream = process.stdout,
  format: LogFormat = 'json',
): Logger {
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
    prettyLogs(format, destination) ? prettyStream(destination) : destination,
  );
}
