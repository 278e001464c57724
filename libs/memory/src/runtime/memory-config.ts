// Memory's settings are read with the others, by @rewind/config's EnvReader.
export { MemoryConfigError, memoryConfigFromEnv, type MemoryConfig, type MemoryDatabase } from '@rewind/config';
