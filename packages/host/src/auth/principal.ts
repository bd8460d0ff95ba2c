/** Who is calling: established once per request by authentication, read by every route. */
export interface Principal {
  readonly tenantId: string;
  readonly username: string;
  readonly roles: readonly string[];
}

/** Built-in roles until per-entity permissions arrive: `admin` may write, `reader` only read. */
export const canWrite = (p: Principal): boolean => p.roles.includes("admin") || p.roles.includes("writer");
