import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';

/**
 * A token that was revoked before its expiry (logout). Kept until the token would have expired
 * anyway; a periodic sweep removes older entries (FerretDB has no TTL indexes).
 */
@Schema({ collection: 'revoked_tokens', versionKey: false })
export class RevokedToken {
  /** The token's jti. */
  @Prop({ type: String, required: true })
  _id!: string;

  @Prop({ type: String, required: true })
  userId!: string;

  @Prop({ type: Date, required: true, index: true })
  expiresAt!: Date;
}

export const RevokedTokenSchema = SchemaFactory.createForClass(RevokedToken);
