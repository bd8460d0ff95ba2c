import { describe, expect, it } from "vitest";
import { hostsFrom, hostsOf } from "./multi-host-url.js";

describe("hostsOf", () => {
  it("reads the hosts of a URL of one or several, with the default port", () => {
    expect(hostsOf("postgres://u:p@db.internal/app")).toEqual([{ host: "db.internal", port: 5432 }]);
    expect(hostsOf("postgresql://u@a:5433,b,[::1]:6432/app?target_session_attrs=read-write")).toEqual([
      { host: "a", port: 5433 },
      { host: "b", port: 5432 },
      { host: "::1", port: 6432 },
    ]);
    expect(hostsOf("mysql://u@a/app")).toBeUndefined();
    expect(hostsOf("postgres://u@a:notaport/app")).toBeUndefined();
  });
});

describe("hostsFrom", () => {
  it("names the hosts from the turn-th on, round, and nothing for one host", () => {
    const url = "postgres://u@a:5432,b:5433,c:5434/app";
    expect(hostsFrom(url, 0)).toEqual({ host: ["a", "b", "c"], port: [5432, 5433, 5434] });
    expect(hostsFrom(url, 1)).toEqual({ host: ["b", "c", "a"], port: [5433, 5434, 5432] });
    expect(hostsFrom(url, 5)).toEqual({ host: ["c", "a", "b"], port: [5434, 5432, 5433] });
    expect(hostsFrom("postgres://u@a:5432/app", 1)).toEqual({});
  });
});
