// Component tests run in jsdom; CSS modules resolve to their class names and assets to their file names.
module.exports = require('../../jest.preset.cjs').project(__dirname, 'unit', {
  testEnvironment: '<rootDir>/src/testing/jsdom-env.cjs',
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/src/**/*.spec.tsx'],
  setupFilesAfterEnv: ['<rootDir>/src/test-setup.ts'],
  moduleNameMapper: {
    '\\.css$': '<rootDir>/src/testing/style-stub.cjs',
    '\\.(svg|png|jpe?g|gif|webp|mp3|ogg|wav)(\\?.*)?$': '<rootDir>/src/testing/file-stub.cjs',
  },
});
