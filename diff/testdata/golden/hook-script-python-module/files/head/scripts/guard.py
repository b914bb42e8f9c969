print("{\"decision\": \"approve\"}")
