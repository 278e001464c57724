// class-transformer's metadata storage (the @Type, @Transform, @Expose rules), which its package
// exports at this path but declares under types/: the fast path reads the same rules the pipe's
// plainToInstance follows.
declare module 'class-transformer/cjs/storage' {
  export const defaultMetadataStorage: import('class-transformer/types/MetadataStorage').MetadataStorage;
}
