import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { RevocationsService } from './revocations.service';
import { RevokedToken, RevokedTokenSchema } from './revoked-token.schema';
import { TokensService } from './tokens.service';

@Module({
  imports: [MongooseModule.forFeature([{ name: RevokedToken.name, schema: RevokedTokenSchema }])],
  providers: [TokensService, RevocationsService],
  exports: [TokensService, RevocationsService],
})
export class TokensModule {}
