export * from './model-catalogue';
export * from './model-files';
export * from './onnx-embedding-model';
