// Capabilities read defensively at request time. The catalog checks their types on the way in,
// but a record stored before it did (or edited in the database) must still end in a 4xx, never
// in a TypeError: a value of the wrong type reads as absent.

export function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

export function integerList(value: unknown): number[] {
  return Array.isArray(value) ? value.filter((item): item is number => Number.isSafeInteger(item)) : [];
}

/** Whether `value` is a count: a whole, non-negative, exactly held number. */
export const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/** A count (see isCount), else `fallback`. */
export function countOr<T extends number | undefined>(value: unknown, fallback: T): number | T {
  return isCount(value) ? value : fallback;
}
