import { describe, expect, it } from "vitest";
import { forwarded, xForwardedFor } from "./forwarded-for.js";

describe("X-Forwarded-For", () => {
  it.each([
    ["203.0.113.7", ["203.0.113.7"]],
    ["203.0.113.7, 10.0.0.2,10.0.0.1", ["203.0.113.7", "10.0.0.2", "10.0.0.1"]],
    ["2001:db8::7, [2001:db8::8], [2001:db8::9]:443", ["2001:db8::7", "2001:db8::8", "2001:db8::9"]],
    ["203.0.113.7:51234", ["203.0.113.7"]],
    ["evil, 203.0.113.7", [undefined, "203.0.113.7"]],
    ["203.0.113.7, ", ["203.0.113.7", undefined]],
    ["", [undefined]],
    ["999.1.1.1", [undefined]],
    ["unknown", [undefined]],
  ])("%j → %j", (header, chain) => {
    expect(xForwardedFor(header)).toEqual(chain);
  });
});

describe("Forwarded (RFC 7239)", () => {
  it.each([
    ["for=192.0.2.43", ["192.0.2.43"]],
    ['for="_gazonk"', [undefined]],
    ['For="[2001:db8:cafe::17]:4711"', ["2001:db8:cafe::17"]],
    ["for=192.0.2.60;proto=http;by=203.0.113.43", ["192.0.2.60"]],
    ["for=192.0.2.43, for=198.51.100.17", ["192.0.2.43", "198.51.100.17"]],
    ['proto=https;for="192.0.2.43:8080", for=unknown', ["192.0.2.43", undefined]],
    // unquoted although the RFC asks for quotes: hand-written proxy configurations do this
    ["for=2001:db8::1", ["2001:db8::1"]],
    ["for=[2001:db8::1]:80", ["2001:db8::1"]],
    // a quoted comma or semicolon belongs to the value
    ['for="x,y";by=1.2.3.4, for=198.51.100.17', [undefined, "198.51.100.17"]],
    // malformed elements
    ["proto=https", [undefined]],
    ["for=1.2.3.4;for=5.6.7.8, for=198.51.100.17", [undefined, "198.51.100.17"]],
    ["for 1.2.3.4, for=198.51.100.17", [undefined, "198.51.100.17"]],
    ["for=1.2.3.4;=x, for=198.51.100.17", [undefined, "198.51.100.17"]],
    ['for="1.2.3.4', [undefined]],
    ["for=1.2.3.4,,for=198.51.100.17", ["1.2.3.4", undefined, "198.51.100.17"]],
    ["", [undefined]],
  ])("%j → %j", (header, chain) => {
    expect(forwarded(header)).toEqual(chain);
  });
});
