/**
 * One validation for every write (issue 35): a model whose properties carry each kind of
 * constraint (min, max, maxLength, scale, enum, required, also on a collection item), and the
 * cases that break them. Every write path is tested with the same cases, against what a PATCH of
 * the same values answers: a method that saves, one that saves on completion, business logic, a
 * virtual entity's `save`, a workflow, an import, a bulk load. Each suite names its entities with
 * its own prefix: suites share a database.
 */
import { collection, decimal, defineModel, entity, enumeration, integer, method, reference, text } from "@bizdata/core";

export interface ConstraintCase {
  /** the kind of constraint, and where: "min", "line required" */
  readonly name: string;
  /** what the write sets on the order */
  readonly change?: Readonly<Record<string, unknown>>;
  /** what it sets on the order's first line */
  readonly line?: Readonly<Record<string, unknown>>;
  /** the detail a PATCH of the same values gets */
  readonly code: string;
  readonly target: string;
}

export const constraintCases: readonly ConstraintCase[] = [
  { name: "min", change: { Quantity: -90 }, code: "OutOfRange", target: "Quantity" },
  { name: "max", change: { Quantity: 101 }, code: "OutOfRange", target: "Quantity" },
  { name: "maxLength", change: { Note: "longer than ten" }, code: "TooLong", target: "Note" },
  { name: "scale", change: { Price: 1.234 }, code: "TooPrecise", target: "Price" },
  { name: "enum", change: { Status: "Shipped" }, code: "InvalidValue", target: "Status" },
  { name: "required", change: { Customer: null }, code: "Required", target: "Customer" },
  { name: "line min", line: { Quantity: -1 }, code: "OutOfRange", target: "Lines[0].Quantity" },
  { name: "line required", line: { Code: null }, code: "Required", target: "Lines[0].Code" },
];

const caseNamed = (name: string): ConstraintCase => {
  const found = constraintCases.find((c) => c.name === name);
  if (found === undefined) throw new Error(`no constraint case "${name}"`);
  return found;
};

/** a valid order with one line */
export const validOrder = (number: string): Record<string, unknown> => ({
  Number: number,
  Customer: "C-1",
  Quantity: 5,
  Price: 2.5,
  Status: "Open",
  Lines: [{ Code: "L-1", Quantity: 1 }],
});

/** the order `number` with the case's values, as a create body */
export const createBody = (number: string, c: ConstraintCase): Record<string, unknown> => {
  const order = { ...validOrder(number), ...c.change };
  if (c.line) order.Lines = [{ Code: "L-1", Quantity: 1, ...c.line }];
  return order;
};

/** the PATCH of the case's values on an order whose first line is `lineGuid` */
export const patchBody = (c: ConstraintCase, lineGuid: string): Record<string, unknown> =>
  c.line === undefined ? { ...c.change } : { Lines: [{ Guid: lineGuid, ...c.line }] };

/** what server code does to break the case: sets its values on the record (and its first line) */
export function applyCase(record: Record<string, unknown>, name: string): void {
  const c = caseNamed(name);
  Object.assign(record, c.change);
  if (c.line) Object.assign((record.Lines as Record<string, unknown>[])[0]!, c.line);
}

export function constraintModel(prefix: string) {
  /** sets the case's values on the record and saves in its body */
  const Apply = method({ description: "Applies a case", type: "modify", params: { case: text({ required: true }) } });
  /** sets the case's values and seals the record, saved once when it completes */
  const Seal = method({
    description: "Applies a case and seals",
    type: "modify",
    saveOnCompletion: true,
    params: { case: text() },
  });
  const Line = entity(`${prefix}Line`, {
    naturalKey: "Guid",
    fields: {
      Order: reference(`${prefix}Order`, { required: true }),
      Code: text({ required: true }),
      Quantity: integer({ min: 0 }),
    },
  });
  const Order = entity(`${prefix}Order`, {
    naturalKey: "Number",
    fields: {
      Number: text({ required: true }),
      Quantity: integer({ min: 0, max: 100 }),
      Note: text({ maxLength: 10 }),
      Price: decimal({ precision: 10, scale: 2 }),
      Status: enumeration(["Open", "Closed"]),
      Customer: text({ required: true }),
      /** set by Seal only */
      Sealed: text({ readOnly: true }),
      /** business logic applies the case this names */
      Logic: text(),
      Lines: collection(Line, { inverse: "Order" }),
    },
    hooks: {
      logic: [
        {
          name: "apply-case",
          run: ({ record }) => {
            if (typeof record.Logic === "string") applyCase(record, record.Logic);
          },
        },
      ],
    },
    methods: { Apply, Seal },
  });
  /** a virtual entity: its `save` creates the order its number names, whose logic breaks the case it names */
  const Entry = entity(`${prefix}Entry`, {
    naturalKey: "Number",
    fields: { Number: text({ required: true }), Case: text() },
    storage: {
      async save(records, { createAll }) {
        // a valid body: the order's business logic breaks the case after validation
        await createAll(
          Order.name,
          records.map((r) => ({ ...validOrder(String(r.Number)), Logic: r.Case ?? null })),
        );
      },
    },
  });
  const model = defineModel([Line, Order, Entry]);
  model.subscribe(Apply, {
    name: "apply",
    run: async ({ record, args, save }) => {
      applyCase(record!, args.case);
      await save();
    },
  });
  model.subscribe(Seal, {
    name: "seal",
    run: ({ record, args }) => {
      if (args.case) applyCase(record!, args.case);
      record!.Sealed = "yes";
    },
  });
  return { model, Order, Entry, Apply, Seal };
}
