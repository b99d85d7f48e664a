/**
 * True for MongoDB's duplicate-key error (code 11000, also what FerretDB answers): a unique index
 * refused a write, or an upsert lost a race to an insert of the same _id.
 */
export function isDuplicateKeyError(error: unknown): boolean {
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
  // mongoose copies the driver's WriteErrors into plain objects: the server's answer stays under
  // `err`, and the `code` getter of the class is lost.
  return (
    refused.length > 0 &&
    refused.every((e) => isDuplicateKeyError(e) || isDuplicateKeyError((e as { err?: unknown } | null)?.err))
  );
}
