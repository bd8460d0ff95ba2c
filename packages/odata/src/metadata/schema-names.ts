/**
 * The names of one schema's children. CSDL gives entity types, complex types, enum types,
 * operations and the entity container one namespace, so a derived name (a complex type named for
 * its field, an enum type for its property) takes the first free candidate, and a clash that
 * cannot be renamed — an operation's name is its URL segment — is a model error.
 */
import type { EnumField } from "@bizdata/core";
import type { EdmEnumType } from "./edm.js";

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

export class SchemaNames {
  readonly #taken = new Map<string, string>();
  readonly #enums = new Map<EnumField, string>();
  readonly enumTypes: EdmEnumType[] = [];

  /** `qualifier`: what names inside the document are qualified by, the schema's alias or its namespace */
  constructor(readonly qualifier: string) {}

  /** claims `name` for `owner`; throws when another owner has it */
  claim(name: string, owner: string): string {
    const holder = this.#taken.get(name);
    if (holder !== undefined && holder !== owner) {
      throw new Error(
        `${owner} and ${holder} would both be named "${name}" in $metadata, where a namespace holds each name once; rename one.`,
      );
    }
    this.#taken.set(name, owner);
    return name;
  }

  /** the first free name of `candidates`, or the last one numbered */
  free(owner: string, ...candidates: string[]): string {
    const found = candidates.find((name) => !this.#taken.has(name));
    if (found !== undefined) return this.claim(found, owner);
    const last = candidates.at(-1)!;
    let n = 2;
    while (this.#taken.has(`${last}${n}`)) n++;
    return this.claim(`${last}${n}`, owner);
  }

  qualified = (name: string) => `${this.qualifier}.${name}`;

  /**
   * The qualified enum type of a closed value set, declared on first use; undefined when a value
   * is no identifier (an enum member's name must be one), so the field stays a plain string.
   */
  enumType(field: EnumField, ...candidates: string[]): string | undefined {
    if (!field.values.every((v) => IDENTIFIER.test(v)) || field.values.length === 0) return undefined;
    let name = this.#enums.get(field);
    if (name === undefined) {
      name = this.free(`enum type ${candidates[0]}`, ...candidates);
      this.#enums.set(field, name);
      this.enumTypes.push({ kind: "enumType", name, members: field.values });
    }
    return this.qualified(name);
  }
}
