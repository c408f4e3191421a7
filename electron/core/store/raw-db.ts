// The better-sqlite3-style handle libsql opens (synchronous statements), apart from the store so
// the lock-wait dialect and the checkpointer can name it without importing the store back.
import type Libsql from 'libsql';

export type RawDb = InstanceType<typeof Libsql>;
