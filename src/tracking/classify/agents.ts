/**
 * The class of a user agent: all a hit keeps of it. The proxies of mail providers are named first
 * (their agents are what they are documented to send), then security gateways' own agents, then
 * any other robot as the `isbot` package knows them, then mail clients and browsers.
 */
import { isbot } from 'isbot';

export type AgentClass =
  | 'none'
  | 'apple_mail_proxy'
  | 'gmail_image_proxy'
  | 'yahoo_mail_proxy'
  | 'security_scanner'
  | 'bot'
  | 'mail_client'
  | 'browser'
  | 'other';

/**
 * Apple Mail Privacy Protection fetches with this agent and nothing more (as observed and
 * documented by ESPs since iOS 15; no browser or mail client sends it bare).
 */
export const APPLE_PROXY_AGENT = 'Mozilla/5.0';
/** Gmail's image proxy ("... (via ggpht.com GoogleImageProxy)"): fetches when the reader opens. */
const GMAIL_PROXY = /GoogleImageProxy/;
/** Yahoo's image proxy ("YahooMailProxy; https://help.yahoo.com/kb/yahoo-mail-proxy-SLN28749.html"). */
const YAHOO_PROXY = /YahooMailProxy/;
/** Agents security gateways announce when they scan links and images on arrival. */
const SECURITY_SCANNERS =
  /barracuda|mimecast|proofpoint|ironport|fireeye|trend ?micro|symantec|sophos|forcepoint|zscaler|safelinks|linkscanner|urldefense/i;
const MAIL_CLIENTS = /Microsoft Outlook|Microsoft Office|Thunderbird|Airmail|Spark\//;
const BROWSERS = /^Mozilla\/5\.0 \(.+\) (AppleWebKit|Gecko)\//;

/** @example agentClass('Mozilla/5.0') // 'apple_mail_proxy' */
export function agentClass(agent: string | undefined): AgentClass {
  const ua = agent?.trim() ?? '';
  if (ua === '') return 'none';
  if (ua === APPLE_PROXY_AGENT) return 'apple_mail_proxy';
  if (GMAIL_PROXY.test(ua)) return 'gmail_image_proxy';
  if (YAHOO_PROXY.test(ua)) return 'yahoo_mail_proxy';
  if (SECURITY_SCANNERS.test(ua)) return 'security_scanner';
  if (MAIL_CLIENTS.test(ua)) return 'mail_client';
  if (isbot(ua)) return 'bot';
  if (BROWSERS.test(ua)) return 'browser';
  return 'other';
}
