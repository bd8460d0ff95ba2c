/**
 * Finds and loads the application the CLI works on: `--config FILE` (a `BizdataConfig` as default
 * export, or `model`/`seed`/`demo` as named exports), `--model MODULE` (a module exporting `model`,
 * or a model as default export), or else `bizdata.config.js`/`.mjs`/`.ts`/`.mts` in the working directory.
 * TypeScript files load as import-module.ts says.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { Model } from "@bizdata/core";
import type { BizdataConfig } from "../bizdata-config.js";
import { importModule } from "./import-module.js";

export const CONFIG_FILES = [
  "bizdata.config.js",
  "bizdata.config.mjs",
  "bizdata.config.ts",
  "bizdata.config.mts",
] as const;

export interface ConfigSource {
  readonly config?: string | undefined;
  readonly model?: string | undefined;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;

// structural, not `instanceof`: the model may come from another copy of @bizdata/core
const isModel = (value: unknown): value is Model =>
  isObject(value) &&
  value.entities instanceof Map &&
  typeof value.entity === "function" &&
  typeof value.subscribe === "function";

/** the config a module's exports stand for; `label` names the module in errors */
export function configOf(exports: Record<string, unknown>, label: string): BizdataConfig {
  const fallback = exports.default;
  if (isModel(fallback)) return { model: fallback };
  const config = isObject(fallback) && "model" in fallback ? fallback : exports;
  if (!isModel(config.model)) {
    throw new Error(
      `${label} exports no model: export \`model\` (made with defineModel from @bizdata/core), a model as default export, or a config (defineConfig) as default export.`,
    );
  }
  if (config.seed !== undefined && typeof config.seed !== "function")
    throw new Error(`${label}: seed must be a function (admin, args) => Promise<void>.`);
  if (config.demo !== undefined) {
    const signIns = isObject(config.demo) ? config.demo.signIns : undefined;
    if (!Array.isArray(signIns))
      throw new Error(`${label}: demo must be { signIns: [{ tenant, username, password }] }.`);
    if (config.seed === undefined) throw new Error(`${label}: demo needs a seed function that creates it.`);
  }
  return config as unknown as BizdataConfig;
}

/** Loads the application from the command line's choice, or from the working directory's config file. */
export async function loadBizdataConfig(source: ConfigSource, cwd: string): Promise<BizdataConfig> {
  if (source.config !== undefined && source.model !== undefined)
    throw new Error("Give either --config or --model, not both.");
  const option = source.config !== undefined ? "--config" : source.model !== undefined ? "--model" : undefined;
  const given = source.config ?? source.model;
  const file = given ?? CONFIG_FILES.find((name) => existsSync(resolve(cwd, name)));
  if (file === undefined) {
    throw new Error(
      `No model to work on: give --model <module> (a module exporting \`model\`) or --config <file>, or put a ${CONFIG_FILES[0]} in ${cwd}.`,
    );
  }
  const path = resolve(cwd, file);
  const label = option === undefined ? file : `${option} ${file}`;
  if (!existsSync(path)) throw new Error(`${label}: there is no such file (looked for ${path}).`);
  return configOf(await importModule(path, label), label);
}
