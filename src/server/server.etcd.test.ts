// The main server suite again, on etcd instead of SQLite: every test server
// gets a prefix of its own in one Debian etcd started for this file.
process.env.KW_TEST_STORAGE = 'etcd';
await import('./server.test.ts');

export {};
