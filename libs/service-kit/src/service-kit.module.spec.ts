import mongoose from 'mongoose';
import type { BaseConfig } from './config';
import { ServiceKitModule } from './service-kit.module';

describe('ServiceKitModule', () => {
  it('has mongoose keep no formatted stack trace per query', () => {
    mongoose.set('skipOriginalStackTraces', false);
    const config = { LOG_LEVEL: 'silent', NATS_URL: 'nats://127.0.0.1:4222' } as BaseConfig;
    ServiceKitModule.forRoot({ name: 'test', config });
    expect(mongoose.get('skipOriginalStackTraces')).toBe(true);
  });
});
