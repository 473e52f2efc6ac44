/**
 * When two organization names are the same: ignoring case and surrounding spaces, as an operator
 * reads them ("Acme" and " acme " are one organization). The key is stored beside the name
 * (`organizations.name_key`, unique since migration 0018), so the database refuses a second one
 * even when two bootstraps run at once. Changing this rule needs a migration that rewrites the keys.
 *
 * @example
 *   organizationNameKey('  Ärzte Nord ') === 'ärzte nord';
 */
export function organizationNameKey(name: string): string {
  return name.trim().toLowerCase();
}
