/**
 * The part of the `clamscan` package (2.4.0, plain CommonJS without types) that the scanner uses:
 * talking to a clamd over TCP or a Unix socket. Binary-spawning features are left out on purpose.
 */
declare module 'clamscan' {
  import type { Socket } from 'node:net';
  import type { Readable } from 'node:stream';

  namespace NodeClam {
    interface ClamdscanOptions {
      /** Unix socket path; preferred over host/port when set. */
      socket?: string | false;
      host?: string | false;
      port?: number | false;
      /** Idle timeout of each socket, in milliseconds. */
      timeout?: number;
      localFallback?: boolean;
      /** Path of the clamdscan binary; an empty string means "none", so nothing is spawned. */
      path?: string;
      active?: boolean;
      bypassTest?: boolean;
    }

    interface Options {
      preference?: 'clamscan' | 'clamdscan';
      debugMode?: boolean;
      clamscan?: { active?: boolean; path?: string };
      clamdscan?: ClamdscanOptions;
    }

    interface ScanResult {
      /** null when clamd's reply could not be read as clean or infected (e.g. its read timed out). */
      isInfected: boolean | null;
      viruses: string[];
      file: string | null;
      resultString: string;
      timeout: boolean;
    }
  }

  class NodeClam {
    /** Resolves once clamd answered PING (unless bypassTest); rejects when it cannot be reached. */
    init(options?: NodeClam.Options): Promise<NodeClam>;
    /** Resolves with the still-open socket that received PONG; the caller ends it. */
    ping(): Promise<Socket>;
    /** Streams the bytes with INSTREAM; rejects on connection errors and clamd `ERROR` replies. */
    scanStream(stream: Readable): Promise<NodeClam.ScanResult>;
    /**
     * Private in clamscan, but every clamd connection (init's PING, ping, scanStream) is opened
     * through it: the scanner wraps it to destroy the connections in flight at a stop.
     */
    _initSocket(label?: string): Promise<Socket>;
  }

  export = NodeClam;
}
