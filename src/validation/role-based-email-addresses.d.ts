/**
 * The `role-based-email-addresses` package (3.1.0, plain CommonJS without types): an array of
 * local parts that name a role rather than a person, with the same list split by kind.
 */
declare module 'role-based-email-addresses' {
  const roles: readonly string[] & {
    readonly MARKETING: readonly string[];
    readonly NOTIFICATION: readonly string[];
    readonly MEETING: readonly string[];
    readonly OTHER: readonly string[];
  };
  export default roles;
}
