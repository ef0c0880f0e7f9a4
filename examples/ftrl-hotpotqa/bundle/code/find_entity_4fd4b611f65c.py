ANSWERS = {"step 1.1 of \"What year did Guns N Roses perform a promo for a movie starring Arnold Schwarzenegger as a former New York Police detective?\"":"1999"}

def find_entity_4fd4b611f65c(**arguments):
    return "Result: " + ANSWERS.get(arguments.get("query"), "no record")
