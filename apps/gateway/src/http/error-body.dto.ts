import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { HttpErrorBody } from '@oasis198/contracts';

/** The JSON body of every error answer. */
export class ErrorBodyDto implements HttpErrorBody {
  @ApiProperty({ example: 'Please enter a valid email address.' })
  message!: string;

  @ApiProperty({ example: 'VALIDATION', description: 'VALIDATION, UNAUTHORIZED, FORBIDDEN, NOT_FOUND, ...' })
  code!: string;

  @ApiPropertyOptional({ description: 'Field name -> message, when several fields are wrong.' })
  details?: Record<string, string>;
}
