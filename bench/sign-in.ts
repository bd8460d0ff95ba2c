/** a bearer token for a bench tenant's user, from the host's own sign-in */
export async function signIn(
  url: string,
  tenant: { readonly id: string; readonly username: string; readonly password: string },
): Promise<string> {
  const response = await fetch(`${url}/api/auth/signin`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ TenantId: tenant.id, Username: tenant.username, Password: tenant.password }),
  });
  if (!response.ok) throw new Error(`sign-in failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}
