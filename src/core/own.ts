// Looking a key up in a table of our own (a preset, an alias, a media type) by a string that came
// from outside: own keys only, so `constructor`, `toString` or `__proto__` is not found in every
// object literal's prototype.
export const ownValue = <T>(table: Readonly<Record<string, T>>, key: string): T | undefined => (Object.hasOwn(table, key) ? table[key] : undefined);
