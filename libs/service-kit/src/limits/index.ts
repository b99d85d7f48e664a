export * from './fixed-window';
export * from './versioned-store';
export * from './shared-limit';
export * from './limits-bucket';
