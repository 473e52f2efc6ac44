/**
 * Role accounts: local parts that name a function rather than a person (`admin@`, `postmaster@`,
 * `sales@`, `noreply@`). Mail to them reaches a group or nobody, is more often reported as spam,
 * and some are traps; validation marks them `risky`, never undeliverable. The list is Mixmax's
 * `role-based-email-addresses` package, plus the mailbox names RFC 2142 asks every domain to have.
 * A `+tag` and the case are ignored: `Admin+alerts@` is `admin@`.
 */
import roles from 'role-based-email-addresses';

// RFC 2142 §3-§5 names, kept here in case the package ever drops one.
const RFC_2142 = [
  'abuse',
  'hostmaster',
  'info',
  'marketing',
  'noc',
  'postmaster',
  'sales',
  'security',
  'support',
  'usenet',
  'uucp',
  'webmaster',
  'www',
];

const ROLES: ReadonlySet<string> = new Set([...roles, ...RFC_2142, 'mailer-daemon']);

/** The role the local part names, or undefined for a personal mailbox. */
export function roleOf(local: string): string | undefined {
  if (local.startsWith('"')) return undefined;
  const base = local.toLowerCase().split('+')[0] ?? '';
  return ROLES.has(base) ? base : undefined;
}
