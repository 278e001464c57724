// Memory's settings are read with the others, by @rewind/config's EnvReader.
export { MemoryConfigError, memoryConfigFromEnv, type MemoryConfig } from '@rewind/config';
