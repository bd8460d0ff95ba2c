/**
 * An OData service called in process the way a host calls it: for one tenant, the query options
 * given as text, and every access the service asks permission for recorded in `asked`.
 */
import type { Access, ODataRequest, ODataService } from "@bizdata/odata";

export type ServiceCall = Omit<ODataRequest, "tenantId" | "search"> & { readonly search?: string };

/** `service` is read at each call: test files create theirs in `beforeAll` */
export const serviceCaller =
  (service: () => ODataService, tenantId: string, asked: Access[]) => async (request: ServiceCall) => {
    const result = await service().handle({
      ...request,
      tenantId,
      search: new URLSearchParams(request.search ?? ""),
      authorize: (access) => asked.push(access),
    });
    return { ...result, json: result.body?.startsWith("{") ? JSON.parse(result.body) : result.body };
  };
