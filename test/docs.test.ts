/**
 * The documentation as a team navigates it: a short README that links to the guides in docs/guide
 * (built by `pnpm docs:build`), every guide in the site's sidebar, every link between the pages
 * landing on a page and a heading that exist, and the configuration guide's table naming every
 * environment variable the host reads. The examples the guides show are run elsewhere: the pack
 * test runs examples/own-model, shown verbatim in the README and the guides.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { loadConfig } from "@bizdata/host";
import { describe, expect, it } from "vitest";
import { sidebar } from "../docs/.vitepress/config.js";

const root = resolve(import.meta.dirname, "..");
const guides = join(root, "docs/guide");
const read = (file: string) => readFileSync(join(root, file), "utf8");
const guidePages = readdirSync(guides)
  .filter((f) => f.endsWith(".md"))
  .map((f) => `docs/guide/${f}`);
const packageReadmes = readdirSync(join(root, "packages")).map((p) => `packages/${p}/README.md`);

/** the lines of a page outside its code fences */
function prose(text: string): string[] {
  let fenced = false;
  return text.split("\n").filter((line) => {
    if (line.startsWith("```")) fenced = !fenced;
    return !fenced && !line.startsWith("```");
  });
}

/** a heading's anchor as VitePress makes it (@mdit-vue/shared's slugify) */
function slugOf(heading: string): string {
  return heading
    .replace(/`/g, "")
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[\s~`!@#$%^&*()\-_+=[\]{}|\\;:"'“”‘’<>,.?/]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .replace(/^(\d)/, "_$1")
    .toLowerCase();
}

function anchorsOf(file: string): Set<string> {
  return new Set(
    prose(read(file))
      .filter((line) => /^#{1,6} /.test(line))
      .map((line) => slugOf(line.replace(/^#+ /, ""))),
  );
}

/** the file a link from `file` names: relative paths, and site paths (`/guide/x`) for the guides */
function targetOf(file: string, href: string): string {
  const inSite = file.startsWith("docs/");
  const path = href.startsWith("/") && inSite ? join("docs", href) : join(dirname(file), href);
  const page = inSite && !/\.[a-z]+$/.test(path) ? `${path}.md` : path;
  return relative(root, resolve(root, page));
}

function linksOf(file: string): { href: string; target: string; anchor: string | undefined }[] {
  const links = prose(read(file)).flatMap((line) => [...line.replace(/`[^`]*`/g, "").matchAll(/\]\(([^)\s]+)\)/g)]);
  return links
    .map((m) => m[1]!)
    .filter((href) => !/^[a-z]+:/.test(href))
    .map((href) => {
      const [path, anchor] = href.split("#") as [string, string | undefined];
      return { href, target: path === "" ? file : targetOf(file, path), anchor };
    });
}

describe("the documentation", () => {
  it("keeps the README under 250 lines, linking to the guides", () => {
    const readme = read("README.md");
    expect(readme.split("\n").length).toBeLessThan(250);
    const linked = new Set(linksOf("README.md").map((l) => l.target));
    for (const page of guidePages) expect(linked, `the README links to ${page}`).toContain(page);
  });

  it("lists every guide in the site's sidebar, and every sidebar entry is a guide", () => {
    const links = sidebar.flatMap((group) => (group.items ?? []).map((item) => item.link));
    expect(links.map((link) => `docs${link}.md`).sort()).toEqual([...guidePages].sort());
    expect(new Set(links).size).toBe(links.length);
  });

  it("has a README for every published package, starting with its name", () => {
    for (const file of packageReadmes) {
      const name = JSON.parse(read(join(dirname(file), "package.json"))).name;
      expect(read(file).split("\n")[0]).toBe(`# ${name}`);
    }
  });

  it("links only to pages and headings that exist", () => {
    const pages = ["README.md", ...packageReadmes, "docs/index.md", ...guidePages];
    const links = pages.flatMap((file) => linksOf(file).map((link) => ({ file, ...link })));
    expect(links.length).toBeGreaterThan(50);
    for (const { file, href, target, anchor } of links) {
      expect(existsSync(join(root, target)), `${file}: ${href}`).toBe(true);
      if (anchor !== undefined && target.endsWith(".md")) {
        expect(anchorsOf(target), `${file}: ${href}`).toContain(anchor);
      }
    }
  });

  it("names every environment variable the host reads in the configuration guide's table", () => {
    const seen = new Set<string>();
    const env = new Proxy({} as NodeJS.ProcessEnv, {
      get: (_env, name) => {
        if (typeof name === "string") seen.add(name);
        return undefined;
      },
    });
    loadConfig(env);
    expect(seen.size).toBeGreaterThan(40);
    const rows = prose(read("docs/guide/configuration.md")).flatMap((line) => {
      const row = /^\| `([A-Z][A-Z0-9_]*)` \|[^|]*\| (.*) \|$/.exec(line);
      return row ? [{ name: row[1]!, meaning: row[2]! }] : [];
    });
    const documented = new Set(rows.map((r) => r.name));
    for (const name of seen) expect(documented, `${name} in docs/guide/configuration.md`).toContain(name);
    // and no row for a variable the host no longer reads (the CLI's own are marked as such)
    for (const { name, meaning } of rows) if (!meaning.startsWith("CLI only")) expect(seen).toContain(name);
  });
});
