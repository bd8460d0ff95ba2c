/**
 * The query as the parser reads it (queryParameters: `$search` and `$expand` keep `%3B` and `%25`)
 * and as a link the service writes puts it back (queryString): what a link carries reads back as
 * the request it continues.
 */
import { describe, expect, it } from "vitest";
import { queryParameters, queryString } from "./query-parameters.js";

describe("queryParameters", () => {
  it.each([
    ["$search=a%3Bb", "$search", "a%3Bb"],
    ["search=100%25", "search", "100%25"],
    ["$SEARCH=%253B", "$SEARCH", "%253B"],
    ["$expand=A($search=a%3Bb%3B$top=1)", "$expand", "A($search=a%3Bb%3B$top=1)"],
    ["$expand=A(%24filter%3DN%20eq%20'a%3Bb')", "$expand", "A($filter=N eq 'a%3Bb')"],
    // other options are read as URLSearchParams reads them
    ["$filter=N%20eq%20'a%3Bb%25'", "$filter", "N eq 'a;b%'"],
    ["$search=a+b&$filter=x%3By", "$filter", "x;y"],
  ])("%s: %s is %j", (query, name, value) => {
    expect(queryParameters(query).get(name)).toBe(value);
  });
});

describe("queryString", () => {
  it.each([
    ["$search=a%3Bb&$top=1", "%24search=a%3Bb&%24top=1"],
    ["$search=100%25%20off", "%24search=100%25+off"],
    ["$search=%253B", "%24search=%253B"],
    ["$expand=A($select=B;$search=c%3Bd%3B$top=1)", "%24expand=A%28%24select%3DB;%24search%3Dc%3Bd%3B%24top%3D1%29"],
    ["$filter=N%20eq%20'a;b'", "%24filter=N+eq+%27a%3Bb%27"],
  ])("writes %s as %s, which reads back the same", (query, written) => {
    const params = queryParameters(query);
    expect(queryString(params)).toBe(written);
    expect([...queryParameters(queryString(params))]).toEqual([...params]);
  });
});
