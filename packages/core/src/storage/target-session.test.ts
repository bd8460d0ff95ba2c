import { describe, expect, it } from "vitest";
import { sessionTarget } from "./target-session.js";

describe("sessionTarget", () => {
  it("asks for the primary where the URL asks for a read-write server", () => {
    const cases: [string, NodeJS.ProcessEnv, object][] = [
      ["postgres://u@a:5432,b:5433/db?target_session_attrs=read-write", {}, { target_session_attrs: "primary" }],
      ["postgres://u@a,b/db?sslmode=require&target_session_attrs=read-write", {}, { target_session_attrs: "primary" }],
      ["postgres://u@a,b/db", { PGTARGETSESSIONATTRS: "read-write" }, { target_session_attrs: "primary" }],
      // the URL's setting comes before the environment's, as in postgres.js
      ["postgres://u@a,b/db?target_session_attrs=read-only", { PGTARGETSESSIONATTRS: "read-write" }, {}],
      ["postgres://u@a,b/db?target_session_attrs=primary", {}, {}],
      ["postgres://u@a,b/db?target_session_attrs=prefer-standby", {}, {}],
      ["postgres://u@a/db", {}, {}],
    ];
    for (const [url, env, expected] of cases) expect([url, sessionTarget(url, env)]).toEqual([url, expected]);
  });
});
