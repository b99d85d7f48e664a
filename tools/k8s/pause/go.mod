module oasis.local/pause

go 1.24
