import { describe, expect, it } from "vitest";
import { isUnavailable, type MethodSubscriber } from "./method.js";

describe("isUnavailable()", () => {
  const declared = (...features: (string | undefined)[]) => {
    const subscribers: MethodSubscriber[] = [];
    for (const [i, feature] of features.entries()) subscribers.push({ name: `S${i}`, ...(feature && { feature }) });
    return subscribers;
  };

  it.each([
    ["every subscriber behind a feature the tenant lacks", declared("A", "B"), [], true],
    ["one subscriber behind a feature the tenant has", declared("A", "B"), ["B"], false],
    ["a subscriber behind no feature", declared("A", undefined), [], false],
    // 501 for everyone, not a tenant's 403: a configuration error stays visible
    ["no subscriber at all", declared(), [], false],
  ])("%s", (_, subscribers, features, expected) => {
    expect(isUnavailable(subscribers, new Set(features))).toBe(expected);
  });
});
