import type BetterSqlite3 from 'better-sqlite3';
// better-sqlite3 13, installed under the name rewind-better-sqlite3 (an npm alias, see the
// packages' dependencies): typeorm 1.1.1, which the read models use, declares an optional peer
// better-sqlite3 ^12, and a package named better-sqlite3 at 13 in a user's tree makes every
// `npm install` of @rewind/embedded print ERESOLVE warnings. The typings stay @types/better-sqlite3's.
import driver from 'rewind-better-sqlite3';

/** The better-sqlite3 constructor every SQLite connection of Rewind is opened with (TypeORM's too, as its `driver`). */
export const SqliteDatabase: typeof BetterSqlite3 = driver;
