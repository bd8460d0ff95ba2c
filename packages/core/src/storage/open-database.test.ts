import { describe, expect, it } from "vitest";
import { describeDatabase, loadDriver, openDatabase } from "./open-database.js";

/** what Node throws for an import of a package that is not installed */
const notInstalled = (name: string) =>
  Object.assign(new Error(`Cannot find package '${name}' imported from /app/node_modules/@bizdata/core/dist/x.js`), {
    code: "ERR_MODULE_NOT_FOUND",
  });

describe("loadDriver", () => {
  it("loads the driver module", async () => {
    expect(await loadDriver(async () => ({ open: 1 }), "postgres", "PostgreSQL")).toEqual({ open: 1 });
  });

  it("names the package to install when the driver's package is missing", async () => {
    await expect(
      loadDriver(
        () => Promise.reject(notInstalled("@bizdata/postgres")),
        "@bizdata/postgres",
        "DATABASE_URL=postgres://…",
      ),
    ).rejects.toThrow(
      "DATABASE_URL=postgres://… needs the package @bizdata/postgres, which is not installed: npm install @bizdata/postgres",
    );
  });

  it("passes any other failure on unchanged, a missing module of another name included", async () => {
    const other = notInstalled("left-pad");
    await expect(loadDriver(() => Promise.reject(other), "postgres", "PostgreSQL")).rejects.toBe(other);
    const broken = new TypeError("driver crashed");
    await expect(loadDriver(() => Promise.reject(broken), "postgres", "PostgreSQL")).rejects.toBe(broken);
  });
});

describe("openDatabase", () => {
  it("refuses an address that is neither postgres:// nor memory://, without the credentials", async () => {
    await expect(openDatabase({ url: "mysql://root:secret@db/app" })).rejects.toThrow(
      'DATABASE_URL "db/app" is neither postgres://… nor memory://.',
    );
  });

  it("takes read replicas of a PostgreSQL primary only", async () => {
    const readReplicas = { urls: ["postgres://app:secret@replica.internal/app"] };
    await expect(openDatabase({ url: "memory://", readReplicas })).rejects.toThrow(
      "DATABASE_READ_URL names read replicas of a PostgreSQL primary: set DATABASE_URL=postgres://… too.",
    );
    await expect(
      openDatabase({ url: "postgres://db.internal/app", readReplicas: { urls: ["mysql://root:secret@db/app"] } }),
    ).rejects.toThrow('DATABASE_READ_URL "db/app" is not postgres://….');
  });

  it("describes an address without its credentials", () => {
    expect(describeDatabase({ url: "postgres://app:secret@db.internal/app" })).toBe(
      "PostgreSQL at db.internal:5432/app",
    );
    expect(
      describeDatabase({
        url: "postgres://app:s@cr,et@a.internal,b.internal:5433/app?target_session_attrs=read-write",
      }),
    ).toBe("PostgreSQL at a.internal:5432,b.internal:5433/app");
    expect(describeDatabase({ url: "postgres://app@[::1]:6432/app" })).toBe("PostgreSQL at [::1]:6432/app");
    expect(
      describeDatabase({
        url: "postgres://app:secret@db.internal/app",
        readReplicas: { urls: ["postgres://r1", "postgres://r2"] },
      }),
    ).toBe("PostgreSQL at db.internal:5432/app with 2 read replicas");
    expect(describeDatabase({ url: "memory://" })).toBe("PGlite in memory");
    expect(describeDatabase({ dataDir: "/var/lib/app" })).toBe("PGlite at /var/lib/app");
  });
});
