/** The guide's stream client (docs/guide/change-tracking.md) against the host, as a client runs it. */
import { signedInTenant } from "@bizdata/test-kit/host-app";
import { describe, expect, it } from "vitest";
import { type Change, type Cursor, follow, type Open } from "./follow-changes.js";

describe("the change stream example", () => {
  it("follows the products' changes, and resumes after a disconnection with the ones it missed, once", async () => {
    const { admin } = await signedInTenant("follow");
    const open: Open = (url, headers) => admin.request("GET", url, undefined, headers);
    const post = async (sku: string) =>
      ((await (await admin.request("POST", "/api/Product", { SKU: sku })).json()) as { Guid: string }).Guid;
    const cursor: Cursor = { lastEventId: undefined };
    const seen: Change[] = [];
    // the first id (the stream's start) comes before any change: write once the stream is open
    const following = follow(open, "/api/$changes?entities=Product", cursor, (change) => {
      seen.push(change);
      return seen.length < 1;
    });
    while (cursor.lastEventId === undefined) await new Promise((resolve) => setImmediate(resolve));
    const first = await post("F-1");
    expect(await following).toBe("stopped");
    // while it is away
    const missed = [await post("F-2"), await post("F-3")];
    expect(
      await follow(open, "/api/$changes?entities=Product", cursor, (change) => {
        seen.push(change);
        return seen.length < 3;
      }),
    ).toBe("stopped");
    expect(seen.map((c) => [c.kind, c.key])).toEqual([
      ["create", first],
      ["create", missed[0]],
      ["create", missed[1]],
    ]);
    // a position older than the change log keeps changes (one reached in 1970) is refused before the stream starts
    const refused = await follow(open, "/api/$changes", { lastEventId: "Yy4xLjEuMA" }, () => false);
    expect(refused).toBe("expired");
  });
});
