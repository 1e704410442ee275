// Loaded before every unit test file (jest.unit.config.js): nothing here may need a server.
process.env.TEST_DATABASE_URL = 'postgres://postgres@127.0.0.1:1/unit_tests_have_no_database';
process.env.TEST_REDIS_URL = 'redis://127.0.0.1:1';
delete process.env.RFQ_TEST_RUN_ID;
