// The npm alias of better-sqlite3 (sqlite-driver.ts says why) has the typings of the package it names.
declare module 'rewind-better-sqlite3' {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- re-exports an `export =` module with its namespace (Database.Database), which only this form keeps
  import Database = require('better-sqlite3');
  export = Database;
}
