/**
 * True for MongoDB's duplicate-key error (code 11000, also what FerretDB answers): a unique index
 * refused a write, or an upsert lost a race to an insert of the same _id. Also for one write error
 * of a bulk write as mongoose hands it over: a plain copy of the driver's WriteError, whose code is
 * under `err` only (the class's `code` getter is not copied).
 */
export function isDuplicateKeyError(error: unknown): boolean {
  const e = error as { err?: unknown } | null;
  return hasDuplicateKeyCode(error) || hasDuplicateKeyCode(e?.err);
}

function hasDuplicateKeyCode(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  return e?.code === 11000 || e?.code === 11001 || /E11000 duplicate key/.test(String(e?.message ?? ''));
}

/**
 * True when every write an unordered insertMany refused was refused for a duplicate key: the
 * documents new to the collection are written, and the others were there already.
 */
export function onlyDuplicateKeys(error: unknown): boolean {
  const writeErrors = (error as { writeErrors?: unknown } | null)?.writeErrors;
  const refused: unknown[] = Array.isArray(writeErrors) ? writeErrors : [error];
  return refused.length > 0 && refused.every(isDuplicateKeyError);
}
