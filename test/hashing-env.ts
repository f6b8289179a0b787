/**
 * Password hashing at its cheapest, for every app the tests start: the core's own cost (argon2id
 * over 86 MiB, bcrypt 2^11) is ~80 ms of CPU per sign-up or sign-in, and no test but
 * test/unit/server/passwords.test.ts (which checks the defaults) is about that cost.
 */
export const TEST_HASHING_ENV = {
  AUTH_CORE_BCRYPT_LOG_ROUNDS: '4',
  AUTH_CORE_ARGON2_ITERATIONS: '1',
  AUTH_CORE_ARGON2_MEMORY_KB: '64',
  AUTH_CORE_ARGON2_PARALLELISM: '1',
}
