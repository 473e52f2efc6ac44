/**
 * `posthorn doctor [--json] [--strict] [--time-server HOST[:PORT]]`: checks this host before the
 * first send and prints one line per finding, `ok`, `warn` or `fail`, with what to do. Exit codes:
 * 0 nothing failed, 1 something failed (or, with --strict, warned), 2 a config that cannot be
 * read or a usage error. Reads the store when there is one; never writes it, nor any DNS.
 */
import { databaseFindings } from '../doctor/database.js';
import { runDoctor } from '../doctor/doctor.js';
import { exitCode, fail, renderJson, renderText } from '../doctor/finding.js';
import { ConfigError } from '../platform/config/load.js';
import { type Command, stringOption } from './command.js';
import { loadShownConfig, openAdminWith } from './context.js';

export const doctorCommand: Command = {
  kind: 'command',
  name: 'doctor',
  summary:
    'Check this host before the first send: config, DNS and reverse DNS, SPF/DKIM/DMARC of every domain, inbound MX, ClamAV, the database, disk and clock.',
  options: {
    json: { type: 'boolean' },
    strict: { type: 'boolean' },
    'time-server': { type: 'string' },
  },
  help: {
    json: 'Print one JSON object: status, summary and checks (check, subject, status, message, fix).',
    strict: 'Exit 1 on a warning too, not only on a failure.',
    'time-server':
      'NTP server (HOST or HOST:PORT) to measure clock skew against; by default timedatectl is asked, else pool.ntp.org.',
  },
  async run(values, _positionals, io) {
    const print = (findings: Parameters<typeof renderText>[0]) => {
      if (values.json) io.out(renderJson(findings));
      else for (const line of renderText(findings)) io.out(line);
    };
    let loaded: ReturnType<typeof loadShownConfig>;
    try {
      loaded = loadShownConfig(values);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      print(
        error.problems.map((problem) =>
          fail('config', `${problem}.`, 'fix the key named, then run posthorn doctor again'),
        ),
      );
      return 2;
    }
    const { config } = loaded;
    const source = loaded.file ?? `the embedded defaults (${loaded.path} does not exist)`;
    const timeServer = stringOption(values, 'time-server');
    // First the database itself; the checks that read it run only on one they can open.
    const checked = databaseFindings(config.storage);
    const findings = await runDoctor({
      config,
      source,
      ...(timeServer !== undefined ? { timeServer } : {}),
      database: async () => (await checked).findings,
      store: async () => {
        const { where, usable } = await checked;
        if (!usable) return { where };
        const admin = await openAdminWith(config);
        try {
          const { domains, inbound } = admin.services;
          return { where, domains: await domains.inspectAll(), routed: await inbound.routedDomains() };
        } finally {
          await admin.close();
        }
      },
    });
    print(findings);
    return exitCode(findings, values.strict === true);
  },
};
