/**
 * A tiny command tree over `node:util` parseArgs: groups of commands, each with its own options
 * and `--help`. Usage errors exit 2, like an invalid config.
 */
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';

export interface Io {
  out(line: string): void;
  err(line: string): void;
}

export type Values = Record<string, string | boolean | string[] | undefined>;

export interface Command {
  readonly kind: 'command';
  readonly name: string;
  readonly summary: string;
  /** Positional arguments, for the usage line, e.g. `ID`. */
  readonly args?: string;
  readonly options?: ParseArgsOptionsConfig;
  /** Option name → help text. */
  readonly help?: Readonly<Record<string, string>>;
  run(values: Values, positionals: string[], io: Io): Promise<number>;
}

export interface Group {
  readonly kind: 'group';
  readonly name: string;
  readonly summary: string;
  readonly children: readonly (Command | Group)[];
}

export class UsageError extends Error {}

const globalOptions: ParseArgsOptionsConfig = {
  config: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

function groupHelp(group: Group, trail: string): string {
  const width = Math.max(...group.children.map((c) => c.name.length));
  const lines = group.children.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return `${group.summary}\n\nUsage: ${trail} <command> [options]\n\nCommands:\n${lines.join('\n')}\n\nRun \`${trail} <command> --help\` for a command's options.`;
}

function commandHelp(command: Command, trail: string): string {
  const entries = Object.entries(command.options ?? {}).map(([name, option]) => {
    const flag =
      option.type === 'string' ? `--${name} ${name.toUpperCase().replace(/-/g, '_')}` : `--${name}`;
    return [flag, command.help?.[name] ?? ''] as const;
  });
  entries.push(['--config PATH', 'Config file (default: $POSTHORN_CONFIG or config/config.toml).']);
  entries.push(['--help', 'Show this help.']);
  const width = Math.max(...entries.map(([flag]) => flag.length));
  const lines = entries.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`);
  const args = command.args ? ` ${command.args}` : '';
  return `${command.summary}\n\nUsage: ${trail}${args} [options]\n\nOptions:\n${lines.join('\n')}`;
}

/** How many positional arguments a command takes: one per word of its `args`. */
function positionalCount(command: Command): number {
  return command.args ? command.args.split(' ').filter(Boolean).length : 0;
}

/** Finds the command named by argv and runs it; returns the exit code. */
export async function dispatch(root: Group, argv: readonly string[], io: Io): Promise<number> {
  let node: Command | Group = root;
  let trail = root.name;
  let rest = [...argv];
  while (node.kind === 'group') {
    const name = rest[0];
    if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
      (name === undefined ? io.err : io.out)(groupHelp(node, trail));
      return name === undefined ? 2 : 0;
    }
    const child: Command | Group | undefined = node.children.find((c) => c.name === name);
    if (!child) {
      io.err(`Unknown command "${name}" for ${trail}.\n\n${groupHelp(node, trail)}`);
      return 2;
    }
    node = child;
    trail = `${trail} ${name}`;
    rest = rest.slice(1);
  }
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({
      args: rest,
      options: { ...globalOptions, ...node.options },
      allowPositionals: true,
      strict: true,
    }) as { values: Values; positionals: string[] };
  } catch (error) {
    // Node's hint about `--` for positionals that start with '-' fits no command here.
    const message = (error as Error).message.replace(/\. To specify a positional argument[\s\S]*$/, '.');
    io.err(`${message}\n\n${commandHelp(node, trail)}`);
    return 2;
  }
  if (parsed.values.help) {
    io.out(commandHelp(node, trail));
    return 0;
  }
  // An argument the command does not take was ignored: `keys revoke A B` revoked only A.
  const extra = parsed.positionals.slice(positionalCount(node));
  if (extra.length > 0) {
    io.err(`Unexpected argument "${extra[0]}".\n\n${commandHelp(node, trail)}`);
    return 2;
  }
  try {
    return await node.run(parsed.values, parsed.positionals, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`${error.message}\n\n${commandHelp(node, trail)}`);
      return 2;
    }
    throw error;
  }
}

export function stringOption(values: Values, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

export function requireOption(values: Values, name: string): string {
  const value = stringOption(values, name);
  if (value === undefined || value === '') throw new UsageError(`--${name} is required.`);
  return value;
}

/** The longest name the HTTP API takes (a template's, spec §4.2); the CLI's names keep to it too. */
export const MAX_NAME_CHARS = 80;

/**
 * A name given on the command line (organization, project, key), taken as the HTTP API takes
 * names: trimmed, not empty, at most `MAX_NAME_CHARS` characters. Undefined when not given.
 */
export function nameOption(values: Values, name: string, what: string): string | undefined {
  const value = stringOption(values, name);
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (trimmed === '') throw new UsageError(`--${name} must name the ${what}.`);
  if (trimmed.length > MAX_NAME_CHARS)
    throw new UsageError(
      `--${name} must be at most ${MAX_NAME_CHARS} characters (it has ${trimmed.length}).`,
    );
  return trimmed;
}
