/** Who is calling: established once per request by authentication, read by every route. */
export interface Principal {
  readonly tenantId: string;
  readonly username: string;
  readonly roles: readonly string[];
  /** a delegated (third-party) token's scopes; absent for the host's own tokens */
  readonly scopes?: readonly string[];
}

/** whether the caller may read at all (a delegated token without a known scope may not) */
export const canRead = (p: Principal): boolean => p.roles.length > 0;

/** who wrote, for reads that must see it (read replicas: Database.routing.forClient): tenant and user */
export const writerOf = (p: Principal): string => `${p.tenantId}/${p.username}`;
