/**
 * One connection to an MX host: its addresses tried in order, each from the source address that
 * may reach it (routing/source-addresses.ts), until one answers. Only an unreachable address is
 * worth trying the next one: a reply or a failed TLS handshake is the host's, and ends the try.
 *
 * It never pools nor remembers a host as down: the lane (lane.ts) does.
 */
import { transportFailureOf } from '../replies/bounce-classifier.js';
import { noSourceFor, type SourceAddresses } from '../routing/source-addresses.js';
import type { ConnectOptions, MxConnection, MxTarget, TlsMode } from './mx-connection.js';

/** What opening a connection needs of the lane's settings (lane.ts' LaneSettings). */
export interface OpenSettings {
  readonly port: number;
  readonly ehloName: string;
  readonly connectTimeoutMs: number;
  readonly commandTimeoutMs: number;
  readonly ca?: string | undefined;
}

/** The connection to the first of `addresses` that answers; throws the last failure when none does. */
export async function openHost(
  connect: (target: MxTarget, options: ConnectOptions) => Promise<MxConnection>,
  settings: OpenSettings,
  sources: SourceAddresses,
  host: string,
  addresses: readonly string[],
  tls: TlsMode,
  source: string | undefined,
  signal: AbortSignal,
): Promise<MxConnection> {
  let lastError: unknown;
  for (const address of addresses) {
    const localAddress = sources.for(address, source);
    if (localAddress === null) {
      lastError ??= noSourceFor(address);
      continue;
    }
    try {
      return await connect(
        { host, address, port: settings.port },
        {
          name: settings.ehloName,
          tls,
          localAddress,
          connectTimeoutMs: settings.connectTimeoutMs,
          commandTimeoutMs: settings.commandTimeoutMs,
          ca: settings.ca,
          signal,
        },
      );
    } catch (error) {
      lastError = error;
      if (transportFailureOf(error) !== 'connect_failed') break;
    }
  }
  throw lastError;
}
