/**
 * Config sections that protect a sender's reputation: address validation and the reputation
 * center (thresholds, dedicated-IP warm-up, mailbox-provider connections).
 */
import cron from 'node-cron';
import { z } from 'zod';
import { duration, httpUrl, MAX_TIMER_MS } from './fields.js';

export const validationSection = z
  .strictObject({
    cache_ttl: duration()
      .default('1h')
      .describe(
        'How long the checks of an address (syntax, DNS, disposable, role, typo) are reused; results then say cached = true. 0s turns the cache off. Suppression is always asked fresh.',
      ),
    cache_entries: z.int().min(0).default(100_000).describe('Most addresses the validation cache holds.'),
    requests_per_minute: z
      .int()
      .min(0)
      .default(600)
      .describe('Validations per minute per project (POST /v1/validation); 0 is unlimited.'),
    dns_timeout_ms: z
      .int()
      .positive()
      .max(MAX_TIMER_MS)
      .default(3000)
      .describe(
        'Timeout of one DNS query of a validation; a domain that does not answer in time is unknown.',
      ),
    disposable_domains_file: z
      .string()
      .default('')
      .describe(
        'A file of extra disposable domains, one a line ("#" comments; "!domain" takes a domain off the packaged list); re-read when it changes. Empty uses the packaged list only.',
      ),
  })
  .describe(
    'Address validation (POST /v1/validation). It never probes the recipient’s mail server over SMTP.',
  );

/**
 * The built-in warm-up plan: messages per provider lane on day 1, 2, ... of a new dedicated IP,
 * doubling at first and then growing by a quarter to a third a day, as Gmail, Microsoft and
 * Yahoo expect of a new IP; after the last day the address has no warm-up limit.
 */
export const STANDARD_WARMUP_PLAN = {
  name: 'standard',
  daily_limits: [
    50, 100, 200, 300, 500, 750, 1000, 1500, 2000, 2500, 3000, 4000, 5000, 6000, 7500, 9000, 11_000, 13_000,
    16_000, 20_000, 25_000, 30_000, 40_000, 50_000, 65_000, 80_000, 100_000, 125_000, 150_000, 200_000,
  ],
} as const;

const warmupPlan = z.strictObject({
  name: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]*$/, 'must be lower-case letters, digits, "-" and "_"')
    .describe('Plan name, given to `posthorn admin ips approve --plan`.'),
  daily_limits: z
    .array(z.int().positive())
    .min(1)
    .describe('Messages per provider lane allowed on day 1, 2, ...; after the last day there is no limit.'),
});

/** The plans by name: the built-in one, replaced or joined by those of `[[reputation.warmup_plans]]`. */
export function warmupPlans(configured: readonly { name: string; daily_limits: readonly number[] }[]) {
  const plans = new Map<string, readonly number[]>([
    [STANDARD_WARMUP_PLAN.name, STANDARD_WARMUP_PLAN.daily_limits],
  ]);
  for (const plan of configured) plans.set(plan.name, plan.daily_limits);
  return plans;
}

const rate = (fallback: number, text: string) => z.number().min(0).max(1).default(fallback).describe(text);

export const reputationSection = z
  .strictObject({
    bounce_rate_warning: rate(
      0.02,
      'Hard-bounce rate (of delivered + bounced) at which a sending domain or lane turns warning.',
    ),
    bounce_rate_at_risk: rate(0.05, 'Hard-bounce rate at which a sending domain or lane is at_risk.'),
    complaint_rate_warning: rate(
      0.001,
      'Complaint rate (of delivered) at which a domain or lane turns warning (Google asks to stay below 0.1 %).',
    ),
    complaint_rate_at_risk: rate(
      0.003,
      'Complaint rate at which a domain or lane is at_risk (Gmail and Yahoo require less than 0.3 %).',
    ),
    min_volume: z
      .int()
      .min(0)
      .default(100)
      .describe('Outcomes (delivered + bounced) a window needs before its rates decide a state.'),
    default_warmup_plan: z
      .string()
      .default(STANDARD_WARMUP_PLAN.name)
      .describe('Warm-up plan of a dedicated IP approved without --plan.'),
    warmup_plans: z
      .array(warmupPlan)
      .default([])
      .describe(
        `Warm-up plans of dedicated IPs, beside the built-in "standard" one (${STANDARD_WARMUP_PLAN.daily_limits.length} days from ${STANDARD_WARMUP_PLAN.daily_limits[0]} messages per provider a day); a plan named "standard" replaces it.`,
      ),
    postmaster_api_url: httpUrl
      .default('https://gmailpostmastertools.googleapis.com')
      .describe('Base URL of the Google Postmaster Tools API (provider_a_postmaster connections).'),
    postmaster_token_url: httpUrl
      .default('https://oauth2.googleapis.com/token')
      .describe('OAuth 2.0 token endpoint a Postmaster Tools refresh token is exchanged at.'),
    snds_api_url: httpUrl
      .default('https://sendersupport.olc.protection.outlook.com/snds')
      .describe('Base URL of Microsoft SNDS automated data access (provider_b_snds connections).'),
    provider_timeout: duration({ min: '1ms', timer: true })
      .default('30s')
      .describe('Time allowed for one request to a mailbox provider.'),
    sync_cron: z
      .string()
      .regex(/^\S+(\s+\S+){4,5}$/, 'must be a cron expression with 5 or 6 fields, e.g. "23 5 * * *"')
      .refine((value) => cron.validate(value), 'must be a valid cron expression, e.g. "23 5 * * *"')
      .default('23 5 * * *')
      .describe('When every provider connection fetches its latest data (cron, local time).'),
  })
  .refine((s) => s.bounce_rate_warning <= s.bounce_rate_at_risk, {
    message: 'bounce_rate_warning must not be above bounce_rate_at_risk',
    path: ['bounce_rate_warning'],
  })
  .refine((s) => s.complaint_rate_warning <= s.complaint_rate_at_risk, {
    message: 'complaint_rate_warning must not be above complaint_rate_at_risk',
    path: ['complaint_rate_warning'],
  })
  .refine((s) => warmupPlans(s.warmup_plans).has(s.default_warmup_plan), {
    message: 'default_warmup_plan must name a plan of warmup_plans or "standard"',
    path: ['default_warmup_plan'],
  })
  .describe(
    'The reputation center (GET /v1/reputation): thresholds of its states, dedicated-IP warm-up plans and mailbox-provider connections.',
  );
