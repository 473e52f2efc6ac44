/**
 * The one configuration schema. Every key has a description and a default that serves a single
 * small VPS; `config/posthorn.example.toml` is generated from these descriptions, and
 * `posthorn config check` validates against this schema. Keys marked `secret` are redacted by
 * `posthorn config print`. The sections are defined per capability in ./sections/; this module
 * composes them, and their order here is the order of the example file.
 */
import { z } from 'zod';
import { accountsSection, systemMailSection } from './sections/accounts.js';
import { broadcastsSection } from './sections/broadcasts.js';
import { dashboardSection } from './sections/dashboard.js';
import { deliverySection, laneSchema, newLaneDefaults } from './sections/delivery.js';
import { clamavSection, smtpInSection } from './sections/inbound.js';
import { approvalsSection, oauthSection } from './sections/oauth.js';
import {
  dnsSection,
  limitsSection,
  logSection,
  retentionSection,
  securitySection,
  serverSection,
  statusSection,
  storageSection,
} from './sections/platform.js';
import { reputationSection, validationSection } from './sections/reputation.js';
import { dkimSection, domainsSection, sandboxSection, trackingSection } from './sections/sending.js';
import { webhooksSection } from './sections/webhooks.js';

export { laneSchema, newLaneDefaults };

export const configSchema = z.strictObject({
  server: serverSection.default(serverSection.parse({})),
  storage: storageSection.default(storageSection.parse({})),
  security: securitySection.default(securitySection.parse({})),
  smtp_in: smtpInSection.default(smtpInSection.parse({})),
  delivery: deliverySection.default(deliverySection.parse({})),
  dkim: dkimSection.default(dkimSection.parse({})),
  dns: dnsSection.default(dnsSection.parse({})),
  domains: domainsSection.default(domainsSection.parse({})),
  clamav: clamavSection.default(clamavSection.parse({})),
  tracking: trackingSection.default(trackingSection.parse({})),
  sandbox: sandboxSection.default(sandboxSection.parse({})),
  system_mail: systemMailSection.default(systemMailSection.parse({})),
  accounts: accountsSection.default(accountsSection.parse({})),
  oauth: oauthSection.default(oauthSection.parse({})),
  approvals: approvalsSection.default(approvalsSection.parse({})),
  limits: limitsSection.default(limitsSection.parse({})),
  webhooks: webhooksSection.default(webhooksSection.parse({})),
  broadcasts: broadcastsSection.default(broadcastsSection.parse({})),
  retention: retentionSection.default(retentionSection.parse({})),
  validation: validationSection.default(validationSection.parse({})),
  reputation: reputationSection.default(reputationSection.parse({})),
  status: statusSection.default(statusSection.parse({})),
  dashboard: dashboardSection.default(dashboardSection.parse({})),
  log: logSection.default(logSection.parse({})),
});

export type Config = z.infer<typeof configSchema>;
/** One `[[delivery.lanes]]` block as written: budget keys it leaves out are undefined. */
export type LaneSetting = z.infer<typeof laneSchema>;
/** A lane with every key decided (delivery/routing/lanes.ts merges settings over the built-in lanes). */
export type LaneConfig = Required<LaneSetting>;
