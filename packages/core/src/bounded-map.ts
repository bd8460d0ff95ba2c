/**
 * A Map that holds at most `capacity` entries: adding one more drops the oldest (insertion
 * order, which a Map keeps). What the packages keep per request shape, token, path or workflow
 * (plans, verified tokens, route shapes, `Accept` values, warm scopes) is kept in one, so that no
 * stream of distinct keys makes a process grow without end. A capacity of 0 keeps nothing.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(readonly capacity: number) {
    super();
  }

  override set(key: K, value: V): this {
    if (this.capacity <= 0) return this;
    if (this.size >= this.capacity && !this.has(key)) this.delete(this.keys().next().value!);
    return super.set(key, value);
  }

  /** the value kept for `key`, made by `make` and kept when there is none */
  getOrMake(key: K, make: (key: K) => V): V {
    let value = this.get(key);
    if (value === undefined) {
      value = make(key);
      this.set(key, value);
    }
    return value;
  }
}
