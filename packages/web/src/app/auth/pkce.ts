/** RFC 7636 with S256: a random verifier and its SHA-256 challenge, both base64url */
const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");

export const randomText = (bytes = 32) => base64url(crypto.getRandomValues(new Uint8Array(bytes)));

export async function challengeOf(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}
