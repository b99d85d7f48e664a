import { Module } from '@nestjs/common';
import { RevocationsService } from './revocations.service';
import { TokensService } from './tokens.service';

@Module({
  providers: [TokensService, RevocationsService],
  exports: [TokensService, RevocationsService],
})
export class TokensModule {}
