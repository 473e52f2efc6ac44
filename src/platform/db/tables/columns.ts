/**
 * Column types shared by the row types: JSON stored as text, and columns with a database default.
 */
import type { ColumnType } from 'kysely';

/** A JSON document stored as text. */
export type JsonText = string;

/** A column with a database default, optional on insert. */
export type Defaulted<T> = ColumnType<T, T | undefined, T>;
