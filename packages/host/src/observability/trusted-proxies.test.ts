import { describe, expect, it } from "vitest";
import { clientAddressOf, type ProxySettings, parseProxyHeader, parseTrustedProxies } from "./trusted-proxies.js";

const settings = (trusted: string, header: ProxySettings["header"] = "x-forwarded-for"): ProxySettings => ({
  trusted: parseTrustedProxies(trusted),
  header,
});

describe("client address through trusted proxies", () => {
  const client = "203.0.113.7";
  it.each<[string, ProxySettings["header"], string | undefined, Record<string, string>, string | undefined]>([
    // TRUSTED_PROXIES, header, peer, request headers → client address
    ["", "x-forwarded-for", undefined, {}, undefined],
    ["", "x-forwarded-for", "10.0.0.1", {}, "10.0.0.1"],
    ["", "x-forwarded-for", "10.0.0.1", { "X-Forwarded-For": client }, "10.0.0.1"],
    ["", "x-forwarded-for", "::ffff:10.0.0.1", {}, "10.0.0.1"],
    // a trusted peer hands over to the address it names
    ["10.0.0.0/8", "x-forwarded-for", "10.0.0.1", { "X-Forwarded-For": client }, client],
    ["10.0.0.0/8", "x-forwarded-for", "::ffff:10.0.0.1", { "X-Forwarded-For": client }, client],
    ["10.0.0.0/8", "x-forwarded-for", "10.0.0.1", {}, "10.0.0.1"],
    // an untrusted peer is the client, whatever it claims
    ["10.0.0.0/8", "x-forwarded-for", "198.51.100.1", { "X-Forwarded-For": client }, "198.51.100.1"],
    ["10.0.0.0/8", "x-forwarded-for", undefined, { "X-Forwarded-For": client }, undefined],
    // right to left, skipping trusted hops; what the client itself wrote on the left is not believed
    [
      "10.0.0.0/8",
      "x-forwarded-for",
      "10.0.0.1",
      { "X-Forwarded-For": `1.1.1.1, ${client}, 10.0.0.3, 10.0.0.2` },
      client,
    ],
    // every hop trusted: the leftmost address
    ["10.0.0.0/8", "x-forwarded-for", "10.0.0.1", { "X-Forwarded-For": "10.0.0.9, 10.0.0.2" }, "10.0.0.9"],
    // a malformed entry ends the walk at the nearest known hop
    ["10.0.0.0/8", "x-forwarded-for", "10.0.0.1", { "X-Forwarded-For": "evil" }, "10.0.0.1"],
    ["10.0.0.0/8", "x-forwarded-for", "10.0.0.1", { "X-Forwarded-For": `${client}, evil, 10.0.0.2` }, "10.0.0.2"],
    ["10.0.0.0/8", "x-forwarded-for", "10.0.0.1", { "X-Forwarded-For": `evil, ${client}` }, client],
    // only the configured header is read
    ["10.0.0.0/8", "x-forwarded-for", "10.0.0.1", { Forwarded: `for=${client}` }, "10.0.0.1"],
    ["10.0.0.0/8", "forwarded", "10.0.0.1", { "X-Forwarded-For": client }, "10.0.0.1"],
    ["10.0.0.0/8", "forwarded", "10.0.0.1", { Forwarded: `for=${client};proto=https` }, client],
    ["10.0.0.0/8", "forwarded", "10.0.0.1", { Forwarded: `for=1.1.1.1, for="${client}:4711", for=10.0.0.2` }, client],
    ["10.0.0.0/8", "forwarded", "10.0.0.1", { Forwarded: 'for="_hidden"' }, "10.0.0.1"],
    ["10.0.0.0/8", "forwarded", "10.0.0.1", { Forwarded: 'for="1.2.3.4' }, "10.0.0.1"],
    // lists, IPv6 and names
    ["127.0.0.1, 10.0.0.0/8", "x-forwarded-for", "127.0.0.1", { "X-Forwarded-For": client }, client],
    ["127.0.0.1", "x-forwarded-for", "127.0.0.2", { "X-Forwarded-For": client }, "127.0.0.2"],
    ["loopback", "x-forwarded-for", "::1", { "X-Forwarded-For": "2001:db8::7" }, "2001:db8::7"],
    ["loopback", "x-forwarded-for", "127.9.9.9", { "X-Forwarded-For": client }, client],
    ["private", "x-forwarded-for", "172.16.5.4", { "X-Forwarded-For": `${client}, 192.168.1.1` }, client],
    ["fd00::/8", "x-forwarded-for", "fd00::1", { "X-Forwarded-For": client }, client],
    // hop counts: the nearest n hops, the peer first
    ["1", "x-forwarded-for", "198.51.100.1", { "X-Forwarded-For": `1.1.1.1, ${client}` }, client],
    ["2", "x-forwarded-for", "198.51.100.1", { "X-Forwarded-For": `1.1.1.1, ${client}, 10.0.0.2` }, client],
    ["2", "x-forwarded-for", "198.51.100.1", { "X-Forwarded-For": client }, client],
    ["0", "x-forwarded-for", "198.51.100.1", { "X-Forwarded-For": client }, "198.51.100.1"],
  ])("TRUSTED_PROXIES=%j, %s, peer %s, %j → %s", (trusted, header, peer, headers, expected) => {
    expect(clientAddressOf(settings(trusted, header))(peer, new Headers(headers))).toBe(expected);
  });
});

describe("TRUSTED_PROXIES and PROXY_HEADER", () => {
  it("reads none, a hop count, or a list of addresses, ranges and names", () => {
    expect(parseTrustedProxies(undefined)).toEqual({ kind: "none" });
    expect(parseTrustedProxies(" ")).toEqual({ kind: "none" });
    expect(parseTrustedProxies("0")).toEqual({ kind: "none" });
    expect(parseTrustedProxies("2")).toEqual({ kind: "hops", count: 2 });
    expect(parseTrustedProxies("127.0.0.1, 10.0.0.0/8,::1,loopback")).toEqual({
      kind: "addresses",
      entries: ["127.0.0.1", "10.0.0.0/8", "::1", "loopback"],
    });
  });

  it.each(["10.0.0.0/33", "::1/129", "10.0.0.0/8/1", "proxy.local", "10.0.0.1,", "-1", "10.0.0.0/x"])(
    "refuses %j, naming the entry",
    (raw) => {
      expect(() => parseTrustedProxies(raw)).toThrow(/TRUSTED_PROXIES entry/);
    },
  );

  it("reads the header the proxies maintain, X-Forwarded-For by default", () => {
    expect(parseProxyHeader(undefined)).toBe("x-forwarded-for");
    expect(parseProxyHeader("Forwarded")).toBe("forwarded");
    expect(() => parseProxyHeader("x-real-ip")).toThrow(/PROXY_HEADER=x-real-ip/);
  });
});
