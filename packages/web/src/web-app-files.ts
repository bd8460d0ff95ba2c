/**
 * The app's built files, read from disk once each and kept (a build does not change while it is
 * served). Only files of the build folder are answered: a name with `..`, a leading `/` or a
 * backslash is refused before the disk is asked. Hashed assets (`assets/…`) are immutable, so a
 * browser keeps them; the page itself is revalidated by its ETag.
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";

export interface WebAppFile {
  readonly body: Uint8Array<ArrayBuffer>;
  readonly contentType: string;
  /** a strong ETag from the content */
  readonly etag: string;
  /** a hashed name: cache it for good */
  readonly immutable: boolean;
}

export interface WebAppFiles {
  /** the build folder */
  readonly folder: string;
  /** a file of the build by its path inside it (`index.html`, `assets/index-…js`), undefined when there is none */
  file(path: string): Promise<WebAppFile | undefined>;
}

const TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
};

/** the build of this package: dist/app beside src/ and dist/ alike */
const BUILT = fileURLToPath(new URL("../dist/app", import.meta.url));

const SAFE = /^(?:[A-Za-z0-9_.-]+\/)*[A-Za-z0-9_-][A-Za-z0-9_.-]*$/;

export function webAppFiles(folder: string = BUILT): WebAppFiles {
  const files = new Map<string, Promise<WebAppFile | undefined>>();
  return {
    folder,
    file(path) {
      const contentType = TYPES[extname(path)];
      if (!SAFE.test(path) || path.split("/").includes("..") || contentType === undefined)
        return Promise.resolve(undefined);
      let file = files.get(path);
      if (file === undefined) {
        file = readFile(join(folder, path)).then(
          (bytes) => ({
            body: new Uint8Array(bytes),
            contentType,
            etag: `"${createHash("sha256").update(bytes).digest("base64url").slice(0, 22)}"`,
            immutable: path.startsWith("assets/"),
          }),
          (err: NodeJS.ErrnoException) => {
            if (err.code === "ENOENT" || err.code === "EISDIR") return undefined;
            throw err;
          },
        );
        // neither a missing file nor a failed read is kept: a build may appear, a read may work next time
        void file.then(
          (f) => f === undefined && files.delete(path),
          () => files.delete(path),
        );
        files.set(path, file);
      }
      return file;
    },
  };
}
