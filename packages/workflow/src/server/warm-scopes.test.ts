import { describe, expect, it } from "vitest";
import { WarmScopes } from "./warm-scopes.js";

describe("warm workflow scopes", () => {
  it("keeps a scope while the steps are this host's, and drops it when another host stepped in", () => {
    const scopes = new WarmScopes({ enabled: true });
    const first = scopes.enter("w", 1)!;
    first.answers.set("q", "accept");
    scopes.advanced("w", 2);
    expect(scopes.enter("w", 2)?.answers.get("q")).toBe("accept");
    scopes.advanced("w", 3);
    // the stored index says 5: two steps ran elsewhere, nothing here can be trusted
    expect(scopes.enter("w", 5)?.answers.size).toBe(0);
  });

  it("forgets a closed workflow, bounds its size, and does nothing when off", () => {
    const scopes = new WarmScopes({ enabled: true, capacity: 2 });
    scopes.enter("a", 1)!.answers.set("q", "x");
    scopes.forget("a");
    expect(scopes.enter("a", 1)?.answers.size).toBe(0);
    scopes.enter("b", 1)!.answers.set("q", "y");
    scopes.enter("c", 1);
    // "a" was the oldest and made room
    expect(scopes.enter("b", 1)?.answers.get("q")).toBe("y");
    expect(new WarmScopes({ enabled: false }).enter("a", 1)).toBeUndefined();
  });

  it("is on by default except in development", () => {
    const saved = process.env.NODE_ENV;
    try {
      process.env.NODE_ENV = "development";
      expect(new WarmScopes().enabled).toBe(false);
      process.env.NODE_ENV = "production";
      expect(new WarmScopes().enabled).toBe(true);
    } finally {
      process.env.NODE_ENV = saved;
    }
  });
});
